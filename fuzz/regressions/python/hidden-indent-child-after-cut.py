class A:
 6  def m(self
 
ss
     def n(self):
       (self
 
ss
     def    77777777777777class A:
 6  def m(self
 
ss
    d eïïïïïïïïïïïïïïïøïïïïïïïïïïïïïï77777class A:
 6 def m(self
 
ss
    d eïïïïïïïïïïïïïïïïïïïïïïïïïïïïïïïïïïïïïïïïïïïïïïïïïïïïïïïïïïïïïïïïïïï7777777ï7