# GTKWave script for docs/images/waveform-gemm-direct.png: shows AI Core 0's
# pipes (busy, waiting for a flag, queue depth), its interrupt line and the
# ring links it uses, zoomed to the whole run. Use:
#   gtkwave -S tools/gtkwave_aicore_pipes.tcl gemm.vcd
set wanted [list]
set count [gtkwave::getNumFacs]
foreach pattern {soc.aicore0.pipe.* soc.aicore0.done_irq soc.ring.link.aicore0_to_* soc.ring.link.*_to_aicore0} {
  for {set i 0} {$i < $count} {incr i} {
    set name [gtkwave::getFacName $i]
    if {[string match $pattern $name] && [lsearch -exact $wanted $name] < 0} { lappend wanted $name }
  }
}
gtkwave::addSignalsFromList $wanted
gtkwave::/Time/Zoom/Zoom_Full
